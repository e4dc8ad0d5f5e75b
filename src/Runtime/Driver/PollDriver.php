<?php

declare(strict_types=1);

namespace Nexus\Runtime\Driver;

/**
 * How the loop waits for stream readiness: the one part of the loop that can be swapped (timers,
 * the run queue, signals and fibers stay in Loop). A driver holds watch ids and their streams and
 * reports which ids are ready; the loop keeps the callbacks.
 *
 * Promises every driver keeps (tests/Unit/Runtime/Driver/PollDriverTestCase.php runs them against
 * each): readiness is level-triggered (a stream still readable is reported again on the next poll),
 * several watchers of one stream are all reported, a removed watcher is never reported, and a
 * stream whose peer closed or failed is reported readable (and writable to a write watcher), as
 * stream_select() does. A poll waits at most $timeout seconds (null: until a stream is ready) and
 * returns early when a signal arrives.
 */
interface PollDriver
{
    /**
     * What the driver is called in reports: "epoll", "stream_select".
     */
    public function name(): string;

    /**
     * The most descriptors this driver can watch in this process: FD_SETSIZE (1,024) for
     * stream_select(), the descriptor limit (RLIMIT_NOFILE) for epoll.
     */
    public function capacity(): int;

    /**
     * Whether a stream is refused for its descriptor number (stream_select(): at or above 1,024),
     * so that whoever accepts connections must check their numbers (Runtime\Descriptors).
     */
    public function limitsDescriptorNumbers(): bool;

    /**
     * @param resource $stream
     */
    public function watchRead(int $id, mixed $stream): void;

    /**
     * @param resource $stream
     */
    public function watchWrite(int $id, mixed $stream): void;

    /**
     * Stops reporting $id; unknown ids are ignored. Call it before closing the stream.
     */
    public function unwatch(int $id): void;

    /**
     * How many streams one poll costs time for: all watched ones for stream_select(), those
     * reported ready by the last poll for epoll. The loop sizes its work between polls by it.
     */
    public function pollCost(): int;

    /**
     * Waits until a watched stream is ready or $timeout seconds have passed (null: no limit; 0: do
     * not wait), then fills $read and $write with the ready watch ids. Returns how many ids are
     * ready, 0 when the wait timed out or a signal interrupted it, or false when the poll failed:
     * lastError() says why and culprits() names the watchers to drop.
     *
     * @param list<int> $read
     * @param list<int> $write
     */
    public function poll(?float $timeout, array &$read, array &$write): int|false;

    /**
     * Why the last poll failed ('' when it did not).
     */
    public function lastError(): string;

    /**
     * After a failed poll: the watch ids whose streams this driver cannot watch, each with why
     * ("descriptor 1031", "a closed stream"). The loop stops watching them and reports them.
     *
     * @return array<int, string>
     */
    public function culprits(): array;
}
