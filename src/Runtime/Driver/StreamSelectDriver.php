<?php

declare(strict_types=1);

namespace Nexus\Runtime\Driver;

use Nexus\Runtime\Descriptors;

/**
 * Readiness through stream_select(): works everywhere PHP does, for every kind of stream, and
 * honours bytes PHP has buffered itself. Its cost per poll grows with the streams watched (PHP
 * converts each resource and the kernel polls each descriptor), and it cannot watch a descriptor
 * numbered FD_SETSIZE (1,024) or more: one such stream makes every poll of the set fail, so the
 * loop drops that watcher and reports it (culprits()). Bound: 1,024 descriptors per process.
 */
final class StreamSelectDriver implements PollDriver
{
    /** @var array<int, resource> */
    private array $readStreams = [];
    /** @var array<int, resource> */
    private array $writeStreams = [];
    private string $lastError = '';

    public function name(): string
    {
        return 'stream_select';
    }

    public function capacity(): int
    {
        return Descriptors::FD_SETSIZE;
    }

    public function limitsDescriptorNumbers(): bool
    {
        return true;
    }

    public function watchRead(int $id, mixed $stream): void
    {
        $this->readStreams[$id] = $stream;
    }

    public function watchWrite(int $id, mixed $stream): void
    {
        $this->writeStreams[$id] = $stream;
    }

    public function unwatch(int $id): void
    {
        unset($this->readStreams[$id], $this->writeStreams[$id]);
    }

    public function pollCost(): int
    {
        return \count($this->readStreams) + \count($this->writeStreams);
    }

    public function poll(?float $timeout, array &$read, array &$write): int|false
    {
        $readable = $this->readStreams;
        $writable = $this->writeStreams;
        $read = $write = [];
        if ($readable === [] && $writable === []) {
            if ($timeout === null) {
                $this->lastError = 'nothing to wait for: no stream is watched and no timeout was given';

                return false;
            }
            if ($timeout > 0.0) {
                usleep((int) ceil($timeout * 1e6));
            }

            return 0;
        }
        if ($timeout === null) {
            $seconds = null;
            $micros = 0;
        } else {
            $seconds = (int) $timeout;
            $micros = (int) (($timeout - $seconds) * 1e6);
        }
        $except = null;
        error_clear_last();
        try {
            $ready = @stream_select($readable, $writable, $except, $seconds, $micros);
        } catch (\TypeError|\ValueError $e) {
            // A stream closed while still watched.
            $this->lastError = $e->getMessage();

            return false;
        }
        if ($ready === false) {
            $message = error_get_last()['message'] ?? '';
            if (str_contains($message, 'Interrupted system call')) {
                return 0; // a signal: the loop dispatches it
            }
            $this->lastError = $message;

            return false;
        }
        $this->lastError = '';
        if ($ready === 0) {
            return 0;
        }
        // stream_select() kept the keys (the watch ids) of the ready streams, and counts
        // descriptors: a stream with two watchers is two ready ids.
        $read = array_keys($readable);
        $write = array_keys($writable);

        return \count($read) + \count($write);
    }

    public function lastError(): string
    {
        return $this->lastError;
    }

    public function culprits(): array
    {
        $culprits = [];
        foreach ([$this->readStreams, $this->writeStreams] as $streams) {
            foreach ($streams as $id => $stream) {
                $error = Descriptors::pollError($stream);
                if ($error !== null) {
                    $culprits[$id] = $error;
                }
            }
        }

        return $culprits;
    }
}
