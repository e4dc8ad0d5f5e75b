<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Io;

use Nexus\Io\Connection;
use Nexus\Io\Connector;
use Nexus\Io\Exception\ConnectException;
use Nexus\Io\Listener;
use Nexus\Runtime\Driver\DriverFactory;
use Nexus\Runtime\Driver\EpollDriver;
use Nexus\Runtime\Driver\StreamSelectDriver;
use Nexus\Runtime\Loop;

/**
 * Every descriptor of a process counts against stream_select()'s limit of 1024. A listener in a
 * child process that holds ~1,000 other descriptors closes a connection whose descriptor it must
 * not take (past FD_SETSIZE, or into the reserve kept for other sockets) at once, with one warning
 * per episode, keeps serving the connections it has without spinning, and accepts again once a
 * descriptor is free. Before, such a connection was accepted: in the reserve it left no room for
 * the next database socket, and past 1023 the loop dropped it, and the client waited for nothing.
 */
final class DescriptorLimitTest extends ListenerProcessTestCase
{
    protected function setUp(): void
    {
        $limits = \function_exists('posix_getrlimit') ? posix_getrlimit() : false;
        $hard = \is_array($limits) ? ($limits['hard openfiles'] ?? '0') : '0';
        if (!is_dir('/proc/self/fd') || ($hard !== 'unlimited' && (int) (\is_scalar($hard) ? $hard : 0) < 1100)) {
            self::markTestSkipped('Needs /proc and a hard descriptor limit above 1100.');
        }
    }

    public function testAConnectionIntoTheReserveIsClosedAtOnceAndTheListenerGoesOn(): void
    {
        $address = $this->start('crowded-listener.php', ['32']);
        $first = self::connect($address);
        $second = self::connect($address);
        self::assertSame('one', self::echo($first, 'one'));
        self::assertSame('two', self::echo($second, 'two'));

        $third = self::connect($address); // gets descriptor 992, the first of the reserve
        self::assertTrue(self::closedByPeer($third), 'a connection that would take a reserved descriptor is closed at once');
        $this->waitForLog('descriptor 992');
        $fourth = self::connect($address);
        self::assertTrue(self::closedByPeer($fourth), 'and the next one too');
        $this->assertChildDoesNotSpin();
        self::assertSame('still', self::echo($first, 'still'), 'open connections are still served');

        fclose($second);
        $accepted = false;
        $until = microtime(true) + 5.0;
        while (!$accepted && microtime(true) < $until) {
            // Until the child has seen the close, a newcomer may still be refused.
            $client = self::connect($address);
            $accepted = self::echo($client, 'again') === 'again';
        }
        self::assertTrue($accepted, 'accepted again once a descriptor below the reserve is free');

        $this->stopChild();
        self::assertSame(1, substr_count($this->log(), 'Cannot accept'), "one warning per episode:\n{$this->log()}");
        self::assertStringContainsString('Accepting connections on', $this->log());
    }

    public function testAConnectionPastFdSetsizeNeverEntersTheLoop(): void
    {
        $address = $this->start('crowded-listener.php', ['0']);
        $first = self::connect($address);
        $second = self::connect($address);
        self::assertSame('one', self::echo($first, 'one'));
        self::assertSame('two', self::echo($second, 'two'));

        $third = self::connect($address); // gets descriptor 1024
        self::assertTrue(self::closedByPeer($third), 'closed at once rather than accepted and never polled');
        $this->waitForLog('descriptor 1024');
        self::assertSame('still', self::echo($first, 'still'));
        self::assertSame('both', self::echo($second, 'both'));
        $this->stopChild();
        self::assertStringNotContainsString('stream_select() failed', $this->log(), 'the loop never polled a descriptor it cannot watch');
    }

    public function testAConnectWhoseSocketIsPastFdSetsizeFailsAtOnceOnAStreamSelectLoop(): void
    {
        $loop = new Loop(driver: new StreamSelectDriver());
        $listener = Listener::listen($loop, 'tcp://127.0.0.1:0');
        $fillers = [];
        while (\count($fillers) < 1030) {
            $fillers[] = fopen('/dev/null', 'r');
        }
        try {
            Connector::connect($loop, $listener->address(), 30.0)->await();
            self::fail('a socket the loop cannot watch must not connect');
        } catch (ConnectException $e) {
            self::assertMatchesRegularExpression('/got descriptor \d{4}, which the loop cannot watch/', $e->getMessage());
        } finally {
            $fillers = [];
            $listener->close();
        }
    }

    public function testOnAnEpollLoopAConnectPastFdSetsizeWorks(): void
    {
        if (EpollDriver::unsupportedReason() !== null || DriverFactory::descriptorLimit() < 1200) {
            self::markTestSkipped('needs epoll and a descriptor limit above 1200');
        }
        $loop = new Loop(driver: new EpollDriver(DriverFactory::descriptorLimit()));
        $listener = Listener::listen($loop, 'tcp://127.0.0.1:0');
        $accepted = [];
        $listener->onConnection(static function (Connection $connection) use (&$accepted): void {
            $accepted[] = $connection;
            $connection->onData(static function (string $data) use ($connection): void {
                $connection->write(strtoupper($data));
            });
        });
        $fillers = [];
        while (\count($fillers) < 1030) {
            $fillers[] = fopen('/dev/null', 'r');
        }
        try {
            $client = Connector::connect($loop, $listener->address(), 30.0)->await();
            $client->write('ping');
            self::assertSame('PING', $client->read()->await(30.0));
            self::assertCount(1, $accepted, 'accepted past 1024 too');
            $client->close();
        } finally {
            $fillers = [];
            $listener->close();
        }
    }
}
