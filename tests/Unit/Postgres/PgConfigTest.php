<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Postgres;

use Nexus\Postgres\Exception\InvalidPgConfigException;
use Nexus\Postgres\PgConfig;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class PgConfigTest extends TestCase
{
    public function testParsesAKeywordDsn(): void
    {
        $config = PgConfig::fromDsn('host=db.local port=6543 dbname=app user=alice password=s3cret connect_timeout=1.5 query_timeout=0.25 application_name=web');

        self::assertSame('db.local', $config->host);
        self::assertSame(6543, $config->port);
        self::assertSame('app', $config->database);
        self::assertSame('alice', $config->user);
        self::assertSame('s3cret', $config->password);
        self::assertSame(1.5, $config->connectTimeout);
        self::assertSame(0.25, $config->queryTimeout);
        self::assertSame('web', $config->applicationName);
    }

    public function testDefaultsAndQuotedValues(): void
    {
        $config = PgConfig::fromDsn("  user = bob password='it\\'s a secret'  ");

        self::assertSame('127.0.0.1', $config->host);
        self::assertSame(5432, $config->port);
        self::assertSame('postgres', $config->database);
        self::assertSame('bob', $config->user);
        self::assertSame("it's a secret", $config->password);
        self::assertSame(10.0, $config->connectTimeout, 'connecting is bounded by default');
        self::assertSame(30.0, $config->queryTimeout, 'every statement is bounded by default');
        self::assertSame(30.0, (new PgConfig())->queryTimeout);
        self::assertSame(10.0, (new PgConfig())->connectTimeout);
    }

    public function testConnectionStringQuotesEveryValueAndLeavesTheTimeoutsOut(): void
    {
        $config = new PgConfig(host: '/tmp/sock dir', port: 5433, database: 'd', user: 'u', password: "a'b\\c", queryTimeout: 2.0);

        self::assertSame(
            "host='/tmp/sock dir' port=5433 dbname='d' user='u' password='a\\'b\\\\c' application_name='nexus'",
            $config->toConnectionString(),
        );
        $again = PgConfig::fromDsn($config->toConnectionString());
        self::assertSame("a'b\\c", $again->password);
        self::assertSame('/tmp/sock dir', $again->host);
    }

    public function testWithQueryTimeoutCopies(): void
    {
        $config = new PgConfig(queryTimeout: 1.0);

        self::assertNull($config->withQueryTimeout(null)->queryTimeout);
        self::assertSame(1.0, $config->queryTimeout);
    }

    /**
     * @return iterable<string, array{string, string}>
     */
    public static function badDsns(): iterable
    {
        yield 'no equals sign' => ['host', 'no "=value"'];
        yield 'unknown keyword' => ['hots=x', 'Unknown PostgreSQL connection keyword "hots"'];
        yield 'port not a number' => ['port=abc', 'needs a whole number'];
        yield 'port out of range' => ['port=70000', 'between 1 and 65535'];
        yield 'unclosed quote' => ["password='abc", 'not closed'];
        yield 'repeated keyword' => ['user=a user=b', 'twice'];
        yield 'negative timeout' => ['connect_timeout=-1', 'above zero'];
        yield 'timeout not a number' => ['query_timeout=soon', 'number of seconds'];
        yield 'empty user' => ["user=''", 'must not be empty'];
    }

    #[DataProvider('badDsns')]
    public function testRejectsBadInputWithAClearMessage(string $dsn, string $message): void
    {
        $this->expectException(InvalidPgConfigException::class);
        $this->expectExceptionMessage($message);
        PgConfig::fromDsn($dsn);
    }
}
