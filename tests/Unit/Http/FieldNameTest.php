<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http;

use Nexus\Http\FieldName;
use Nexus\Http\Response;
use Nexus\Http\ResponseSerializer;
use PHPUnit\Framework\TestCase;

final class FieldNameTest extends TestCase
{
    public function testAcceptsTokensOnlyAlsoOnceTheyAreRemembered(): void
    {
        for ($round = 0; $round < 2; ++$round) {
            self::assertTrue(FieldName::isValid('X-Request-Id'));
            self::assertTrue(FieldName::isValid("!#$%&'*+-.^_`|~09azAZ"));
            self::assertFalse(FieldName::isValid(''));
            self::assertFalse(FieldName::isValid('X Request'));
            self::assertFalse(FieldName::isValid('X-Ä'));
            self::assertFalse(FieldName::isValid("X-A\r\n"));
        }
    }

    public function testLowerGivesTheLowerCaseFormOfAnyName(): void
    {
        FieldName::isValid('Content-TYPE');
        self::assertSame('content-type', FieldName::lower('Content-TYPE'));
        self::assertSame('never-checked', FieldName::lower('Never-Checked'));
    }

    public function testStaysBoundedAndCorrectPastItsCapacity(): void
    {
        for ($i = 0; $i < 600; ++$i) {
            self::assertTrue(FieldName::isValid("X-Name-{$i}"));
            self::assertSame("x-name-{$i}", FieldName::lower("X-Name-{$i}"));
        }
        $bytes = ResponseSerializer::serialize(new Response(200, ['CONTENT-LENGTH' => '99', 'X-Name-1' => 'a'], 'body'), true, 'Sun, 06 Nov 1994 08:49:37 GMT');
        self::assertStringContainsString("Content-Length: 4\r\n", $bytes);
        self::assertStringNotContainsString(': 99', $bytes, 'a framing header set in any case is replaced');
    }
}
