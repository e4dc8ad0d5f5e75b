<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http;

use Nexus\Http\Status;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class StatusTest extends TestCase
{
    /** @return iterable<array{int, string}> */
    public static function phrases(): iterable
    {
        yield [100, 'Continue'];
        yield [200, 'OK'];
        yield [204, 'No Content'];
        yield [308, 'Permanent Redirect'];
        yield [413, 'Content Too Large'];
        yield [414, 'URI Too Long'];
        yield [422, 'Unprocessable Content'];
        yield [431, 'Request Header Fields Too Large'];
        yield [501, 'Not Implemented'];
        yield [505, 'HTTP Version Not Supported'];
    }

    #[DataProvider('phrases')]
    public function testReasonPhrases(int $code, string $phrase): void
    {
        self::assertSame($phrase, Status::reason($code));
        self::assertTrue(Status::isRegistered($code));
    }

    public function testUnregisteredCodesHaveNoPhrase(): void
    {
        self::assertSame('', Status::reason(299));
        self::assertFalse(Status::isRegistered(299));
    }
}
