<?php

declare(strict_types=1);

namespace Nexus\Tests\Unit\Redis;

use Nexus\Redis\Exception\RedisErrorException;
use Nexus\Redis\Exception\RedisUnavailableException;
use Nexus\Runtime\Exception\TransientException;
use PHPUnit\Framework\Attributes\DataProvider;
use PHPUnit\Framework\TestCase;

final class RedisErrorExceptionTest extends TestCase
{
    public function testAnErrorReplyKeepsItsCodeAndDetail(): void
    {
        $error = RedisErrorException::fromReply('WRONGTYPE Operation against a key holding the wrong kind of value');

        self::assertSame('WRONGTYPE', $error->prefix);
        self::assertSame('Operation against a key holding the wrong kind of value', $error->detail);
        self::assertNotInstanceOf(TransientException::class, $error, 'a wrong command stays wrong when retried');
    }

    /**
     * @return iterable<string, array{string}>
     */
    public static function passingErrors(): iterable
    {
        yield 'restarting' => ['LOADING Redis is loading the dataset in memory'];
        yield 'script' => ['BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.'];
        yield 'cluster' => ['TRYAGAIN Multiple keys request during rehashing of slot'];
        yield 'replica' => ['MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no.'];
    }

    #[DataProvider('passingErrors')]
    public function testAnErrorThatSaysTheServerCannotServeNowIsTransient(string $reply): void
    {
        $error = RedisErrorException::fromReply($reply);

        self::assertInstanceOf(RedisUnavailableException::class, $error);
        self::assertInstanceOf(TransientException::class, $error, 'the HTTP layer answers it with 503 and Retry-After');
    }
}
