<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Redis;

use Nexus\Io\Connection;
use Nexus\Io\Listener;
use Nexus\Redis\Exception\RedisConnectionException;
use Nexus\Redis\Exception\RedisConnectTimeoutException;
use Nexus\Redis\Exception\RedisReplyLimitException;
use Nexus\Redis\Exception\RedisTimeoutException;
use Nexus\Redis\Protocol\RespLimit;
use Nexus\Redis\RedisClient;
use Nexus\Redis\RedisConfig;
use Nexus\Redis\RedisSubscriber;
use Nexus\Runtime\Loop;
use Nexus\Tests\Support\RunsTheLoop;
use PHPUnit\Framework\TestCase;

/**
 * The client against a fake server on the same loop that answers the first command with hostile
 * bytes: each reply beyond a limit closes the connection with a RedisReplyLimitException, and the
 * commands pending with it fail with it too.
 */
final class HostileServerTest extends TestCase
{
    use RunsTheLoop;

    protected Loop $loop;
    private Listener $server;
    private string $reply = '';
    /** bytes the server streams after the reply, in chunks, while the client stays connected */
    private int $streamAfter = 0;
    private bool $clientHungUp = false;
    private int $watchdog;

    protected function setUp(): void
    {
        $this->loop = new Loop();
        $this->watchdog = $this->loop->delay(20.0, static function (): never {
            throw new \RuntimeException('Watchdog: the test did not finish within 20 s.');
        });
        $this->loop->unreference($this->watchdog);
        $this->server = Listener::listen($this->loop, 'tcp://127.0.0.1:0');
        $this->server->onConnection(function (Connection $connection): void {
            $answered = false;
            $connection->onData(function () use ($connection, &$answered): void {
                if ($answered) {
                    return;
                }
                $answered = true;
                if ($this->reply !== '') {
                    $connection->write($this->reply);
                }
                $this->stream($connection, $this->streamAfter);
            });
            $connection->onClose(function (): void {
                $this->clientHungUp = true;
            });
            $connection->onEnd(function (): void {
                $this->clientHungUp = true;
            });
        });
    }

    protected function tearDown(): void
    {
        $this->server->close();
        $this->loop->cancel($this->watchdog);
    }

    public function testA300000DeepReplyIsRefusedAndDoesNotCrashPhp(): void
    {
        $this->reply = str_repeat("*1\r\n", 300_000) . ":1\r\n";
        $error = $this->firstCommandFails($this->connect());

        self::assertSame(RespLimit::Depth, $error->limit);
        self::assertSame(64, $error->max);
    }

    public function testATwoGigabyteBulkHeaderIsRefusedBeforeItsBytesAreBuffered(): void
    {
        $this->reply = "$2147483648\r\n";
        $this->streamAfter = 4 << 20;
        $client = $this->connect();
        $error = $this->firstCommandFails($client);

        self::assertSame(RespLimit::BulkLength, $error->limit);
        self::assertSame(2_147_483_648, $error->actual);
        self::assertStringContainsString('maxBulkLength', $error->getMessage());
        $this->runUntil(fn(): bool => $this->clientHungUp);
        self::assertTrue($client->isClosed());
    }

    public function testAnArrayOfTooManyElementsIsRefused(): void
    {
        $this->reply = "*5000000\r\n";
        $error = $this->firstCommandFails($this->connect());

        self::assertSame(RespLimit::Elements, $error->limit);
    }

    public function testAnEndlessLineIsRefused(): void
    {
        $this->reply = '+';
        $this->streamAfter = 2 << 20;
        $error = $this->firstCommandFails($this->connect());

        self::assertSame(RespLimit::LineLength, $error->limit);
    }

    public function testEveryPendingCommandFailsWithTheReason(): void
    {
        $this->reply = "*1\r\n*1\r\n*1\r\n:1\r\n";
        $client = $this->connect(new RedisConfig('127.0.0.1', $this->port(), maxReplyDepth: 2));
        $futures = [$client->commandAsync('GET', 'a'), $client->commandAsync('GET', 'b'), $client->pipelineAsync([['GET', 'c']])];
        foreach ($futures as $future) {
            try {
                $future->await();
                self::fail('every pending command fails');
            } catch (RedisReplyLimitException $e) {
                self::assertSame(RespLimit::Depth, $e->limit);
                self::assertStringContainsString('Raise maxReplyDepth', $e->getMessage());
            }
        }
        $this->expectException(RedisConnectionException::class);
        $client->command('PING');
    }

    public function testGarbageInALengthHeaderClosesTheConnection(): void
    {
        $this->reply = "\$lots\r\n";
        $client = $this->connect();
        try {
            $client->command('GET', 'a');
            self::fail('not RESP');
        } catch (RedisConnectionException $e) {
            self::assertStringContainsString('not RESP', $e->getMessage());
        }
        self::assertTrue($client->isClosed());
    }

    public function testAServerThatNeverAnswersAuthFailsTheConnectWithTheConnectTimeout(): void
    {
        $started = $this->loop->now();
        try {
            RedisClient::connect($this->loop, new RedisConfig('127.0.0.1', $this->port(), password: 'secret', connectTimeout: 0.2));
            self::fail('nobody answers AUTH');
        } catch (RedisConnectTimeoutException $e) {
            self::assertStringContainsString('connect timeout of 0.200 s', $e->getMessage());
        }
        self::assertGreaterThanOrEqual(0.2, $this->loop->now() - $started);
    }

    public function testASubscribeThatIsNeverConfirmedTimesOut(): void
    {
        $subscriber = RedisSubscriber::connect($this->loop, new RedisConfig('127.0.0.1', $this->port(), commandTimeout: 0.2));
        try {
            $subscriber->subscribe('news', static function (): void {});
            self::fail('nobody confirms');
        } catch (RedisTimeoutException $e) {
            self::assertStringContainsString('did not confirm SUBSCRIBE news within the command timeout of 0.200 s', $e->getMessage());
        }
        self::assertTrue($subscriber->isClosed());
    }

    private function connect(?RedisConfig $config = null): RedisClient
    {
        return RedisClient::connect($this->loop, $config ?? new RedisConfig('127.0.0.1', $this->port()));
    }

    private function firstCommandFails(RedisClient $client): RedisReplyLimitException
    {
        $future = $client->commandAsync('GET', 'key');
        try {
            $future->await();
        } catch (RedisReplyLimitException $e) {
            self::assertTrue($client->isClosed(), 'the connection is closed');

            return $e;
        }
        self::fail('the command must fail with RedisReplyLimitException');
    }

    /**
     * Writes $bytes more in 64 KiB chunks, one per loop turn, while the client is connected.
     */
    private function stream(Connection $connection, int $bytes): void
    {
        if ($bytes <= 0 || $connection->isClosed()) {
            return;
        }
        $connection->write(str_repeat('x', min($bytes, 65_536)));
        $this->loop->defer(function () use ($connection, $bytes): void {
            $this->stream($connection, $bytes - 65_536);
        });
    }

    private function port(): int
    {
        $address = $this->server->address();

        return (int) substr($address, (int) strrpos($address, ':') + 1);
    }
}
