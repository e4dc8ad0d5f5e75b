<?php

declare(strict_types=1);

namespace Nexus\Tests\Integration\Http\Server;

use Nexus\Http\Response;
use Nexus\Http\Server\ServerOptions;
use Nexus\Runtime\Deferred;
use Nexus\Runtime\Scheduler;

/**
 * A burst of handlers that all wait (each gets a fiber of its own) leaves nothing behind once they
 * are answered and the burst is over: the fibers beyond the pool's mark end, the pool itself is
 * trimmed back to Scheduler::MIN_IDLE_FIBERS once it has not been needed for a second, and no
 * request, response or task stays referenced. 5,000 waiting handlers used to keep ~83 MiB when every fiber was kept; with 64
 * kept, the scheduler's last batch still held 4.2 MiB of finished requests (1.0 MiB now, the
 * fibers kept and the arrays grown for the burst).
 */
final class WaitingBurstTest extends HttpServerTestCase
{
    private const CONNECTIONS = 5;
    private const PER_CONNECTION = 1000;

    public function testMemoryComesBackAfterABurstOfWaitingHandlers(): void
    {
        $waiting = 0;
        /** @var Deferred<null> $gate */
        $gate = new Deferred($this->loop);
        $this->serve(static function () use (&$waiting, &$gate): Response {
            ++$waiting;
            $gate->future()->await();

            return Response::text('done');
        }, new ServerOptions(maxPipelined: self::PER_CONNECTION));

        $this->burst(10, $gate, $waiting); // loads every class and warms the caches
        /** @var Deferred<null> $gate */
        $gate = new Deferred($this->loop);
        $waiting = 0;
        $before = self::memory();
        $rssBefore = self::residentBytes();

        $this->burst(self::PER_CONNECTION, $gate, $waiting);
        self::assertLessThanOrEqual(Scheduler::MAX_IDLE_FIBERS, $this->loop->scheduler()->idleFibers());
        // The burst is over: once the pool has not been needed for a second, the loop trims it
        // when it is about to wait (a timer makes it wait now and then meanwhile).
        $tick = $this->loop->repeat(0.05, static function (): void {});
        $scheduler = $this->loop->scheduler();
        $this->runUntil(static fn(): bool => $scheduler->idleFibers() <= Scheduler::MIN_IDLE_FIBERS);
        $this->loop->cancel($tick);
        $after = self::memory();
        $rssAfter = self::residentBytes();

        self::assertGreaterThanOrEqual(self::CONNECTIONS * self::PER_CONNECTION, $this->loop->scheduler()->fibersCreated());
        self::assertLessThan(
            (int) (2.5 * 1024 * 1024),
            $after - $before,
            \sprintf('%.1f MiB more after the burst than before it', ($after - $before) / 1048576),
        );
        // The fibers' stacks are given back to the system; what stays is the allocator's.
        self::assertLessThan(
            16 * 1024 * 1024,
            $rssAfter - $rssBefore,
            \sprintf('%.1f MiB more resident after the burst than before it', ($rssAfter - $rssBefore) / 1048576),
        );
    }

    /**
     * Sends $perConnection requests on each connection, waits until every handler waits, opens
     * the gate, and waits for every answer; the connections are closed after.
     *
     * @param Deferred<null> $gate
     */
    private function burst(int $perConnection, Deferred $gate, int &$waiting): void
    {
        $clients = [];
        for ($i = 0; $i < self::CONNECTIONS; ++$i) {
            $client = $this->connect();
            $client->send(str_repeat("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n", $perConnection), requests: $perConnection);
            $clients[] = $client;
        }
        $total = self::CONNECTIONS * $perConnection;
        $this->runUntil(static function () use (&$waiting, $total): bool {
            return $waiting >= $total;
        });
        $gate->resolve(null);
        foreach ($clients as $client) {
            $this->waitResponses($client, $perConnection);
            $client->connection->close();
        }
        \assert($this->server !== null);
        $server = $this->server;
        $this->runUntil(static fn(): bool => $server->connectionCount() === 0);
    }

    /**
     * The resident set size, once the allocator has given its caches back.
     */
    private static function residentBytes(): int
    {
        gc_mem_caches();
        $statm = explode(' ', (string) file_get_contents('/proc/self/statm'));

        return (int) ($statm[1] ?? 0) * 4096;
    }

    private static function memory(): int
    {
        gc_collect_cycles();

        return memory_get_usage();
    }
}
