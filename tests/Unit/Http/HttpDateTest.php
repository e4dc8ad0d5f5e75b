<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Http;

use Nexus\Http\HttpDate;
use PHPUnit\Framework\TestCase;

final class HttpDateTest extends TestCase
{
    public function testFormatsImfFixdate(): void
    {
        self::assertSame('Sun, 06 Nov 1994 08:49:37 GMT', HttpDate::format(784111777));
        self::assertSame('Thu, 01 Jan 1970 00:00:00 GMT', HttpDate::format(0));
    }

    public function testNowChangesOnlyWithTheSecond(): void
    {
        $values = [HttpDate::now(784111777), HttpDate::now(784111777), HttpDate::now(784111778)];

        self::assertSame(['Sun, 06 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 08:49:37 GMT', 'Sun, 06 Nov 1994 08:49:38 GMT'], $values);
    }

    public function testNowDefaultsToTheCurrentTime(): void
    {
        $before = time();
        $now = HttpDate::now();
        $after = time();

        self::assertMatchesRegularExpression('/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/', $now);
        self::assertContains($now, [HttpDate::format($before), HttpDate::format($after)]);
    }
}
