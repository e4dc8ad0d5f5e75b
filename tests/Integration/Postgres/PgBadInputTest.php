<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Postgres;

use Nexus\Postgres\Exception\InvalidPgStatementException;
use Nexus\Postgres\Exception\PgParameterException;
use Nexus\Postgres\Exception\PgQueryException;
use Nexus\Postgres\PgPool;
use Nexus\Runtime\Future;

/**
 * A statement that cannot be sent fails alone: at once, with a PgParameterException (or
 * InvalidPgStatementException), whatever runs before or after it on the connection or the pool.
 */
final class PgBadInputTest extends PostgresTestCase
{
    public function testAnUnencodableParameterAsTheFirstQueryFailsAtOnce(): void
    {
        $db = $this->connect();
        $future = $db->queryAsync('SELECT $1::text', [new \stdClass()]);

        self::assertTrue($future->isRejected(), 'it settles without waiting for anything');
        $this->assertFailsWith(PgParameterException::class, 'stdClass', $future);
        self::assertSame(1, $db->query('SELECT 1')->scalar());
    }

    public function testABadParameterQueuedBehindARunningQueryFailsAloneAndTheQueueGoesOn(): void
    {
        $db = $this->connect();
        $running = $db->queryAsync('SELECT pg_sleep(0.05), 1 AS n');
        $bad = $db->queryAsync('SELECT $1::text', [new \stdClass()]);
        $after = $db->queryAsync('SELECT $1::int AS n', [3]);

        $this->assertFailsWith(PgParameterException::class, 'Query parameter $1', $bad);
        self::assertSame(1, $running->await()->first()['n'] ?? null);
        self::assertSame(3, $after->await()->scalar());
    }

    public function testAnArrayThatIsNotValidJsonIsAParameterException(): void
    {
        $db = $this->connect();
        $invalidUtf8 = $db->queryAsync('SELECT $1::jsonb', [['name' => "\xB1\x31"]]);
        $nan = $db->queryAsync('SELECT $1::jsonb', [[1.0, \NAN]]);

        $this->assertFailsWith(PgParameterException::class, 'cannot be sent as JSON', $invalidUtf8);
        $this->assertFailsWith(PgParameterException::class, 'cannot be sent as JSON', $nan);
        self::assertSame(['a' => [1, 2]], $db->query('SELECT $1::jsonb', [['a' => [1, 2]]])->scalar());
    }

    public function testANulByteIsRefusedInsteadOfCuttingTheValueShort(): void
    {
        $db = $this->connect();
        $stringable = new class implements \Stringable {
            public function __toString(): string
            {
                return "x\0y";
            }
        };

        $this->assertFailsWith(PgParameterException::class, 'NUL byte', $db->queryAsync('SELECT $1::text', ["a\0b"]));
        $this->assertFailsWith(PgParameterException::class, 'Query parameter $2', $db->queryAsync('SELECT $1::text, $2::text', ['fine', $stringable]));
        $this->assertFailsWith(InvalidPgStatementException::class, 'NUL byte', $db->queryAsync("SELECT 'a\0b'"));
        $this->assertFailsWith(InvalidPgStatementException::class, 'NUL byte', $db->queryAsync("SELECT 1\0; DROP TABLE x"));
        self::assertSame("a\u{1}b", $db->query('SELECT $1::text', ["a\u{1}b"])->scalar(), 'other control bytes pass as they are');
    }

    public function testTenThousandFailingQueriesLeaveThePoolAtItsSizeWithEveryConnectionUsable(): void
    {
        $pool = new PgPool($this->loop, $this->config(), 4);
        try {
            $futures = [];
            for ($i = 0; $i < 10_000; ++$i) {
                $futures[] = match ($i % 5) {
                    0 => $pool->queryAsync('SELECT $1::text', [new \stdClass()]),
                    1 => $pool->queryAsync('SELECT $1::text', ["nul\0byte"]),
                    2 => $pool->queryAsync('SELECT $1::jsonb', [["\xB1"]]),
                    3 => $pool->queryAsync("SELECT 'a\0b'"),
                    default => $pool->queryAsync('SELECT 1 / $1::int', [0]),
                };
            }
            $failures = [];
            foreach ($futures as $future) {
                try {
                    $future->await();
                } catch (PgParameterException|InvalidPgStatementException|PgQueryException $e) {
                    $failures[$e::class] = ($failures[$e::class] ?? 0) + 1;
                }
            }
            self::assertSame([PgParameterException::class => 6_000, InvalidPgStatementException::class => 2_000, PgQueryException::class => 2_000], $failures);
            self::assertSame(4, $pool->size());
            self::assertSame(4, $pool->idleCount());
            self::assertSame(0, $pool->waitingCount());

            // All four at once, each on its own connection: every one answers.
            $pids = array_map(
                static fn(Future $f): string => var_export($f->await()->scalar(), true),
                array_map(static fn(int $i): Future => $pool->queryAsync('SELECT pg_backend_pid() FROM pg_sleep(0.05)'), range(1, 4)),
            );
            self::assertCount(4, array_unique($pids));
        } finally {
            $pool->close();
        }
    }

    /**
     * @param class-string<\Throwable> $class
     * @param Future<mixed>            $future
     */
    private function assertFailsWith(string $class, string $message, Future $future): void
    {
        try {
            $future->await();
            self::fail("expected {$class}");
        } catch (\Throwable $e) {
            self::assertInstanceOf($class, $e, $e->getMessage());
            self::assertStringContainsString($message, $e->getMessage());
        }
    }
}
