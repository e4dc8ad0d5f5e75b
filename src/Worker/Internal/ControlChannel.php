<?php

declare(strict_types=1);

namespace Nexus\Worker\Internal;

use Nexus\Runtime\Loop;

/**
 * A worker's end of its channel to the master, as lines: the worker reports ("ready", "recycle
 * ...", "applied <revision>"), the master tells ("view <json>", "fence <why>"). The master going
 * away (end of file) calls every $onGone.
 *
 * Bounds: a line longer than MAX_LINE is dropped (logged by the caller through $onLine never
 * seeing it); at most one read of 64 KiB per readiness event.
 *
 * @internal
 */
final class ControlChannel
{
    public const MAX_LINE = 4 * 1024 * 1024;

    private string $buffer = '';
    private bool $skipping = false;
    private ?int $watcher = null;
    /** @var list<\Closure(): void> */
    private array $onGone = [];
    /** @var list<\Closure(string): void> */
    private array $onLine = [];
    private bool $gone = false;

    /**
     * @param resource $control
     */
    public function __construct(
        private readonly Loop $loop,
        private readonly mixed $control,
    ) {}

    /**
     * @param \Closure(string): void $callback each line from the master, without its newline
     */
    public function onLine(\Closure $callback): void
    {
        $this->onLine[] = $callback;
        $this->watch();
    }

    /**
     * @param \Closure(): void $callback
     */
    public function onGone(\Closure $callback): void
    {
        $this->onGone[] = $callback;
        $this->watch();
    }

    private function watch(): void
    {
        if ($this->watcher !== null || $this->gone) {
            return;
        }
        stream_set_blocking($this->control, false);
        $this->watcher = $this->loop->onReadable($this->control, $this->read(...));
        $this->loop->unreference($this->watcher);
    }

    private function read(): void
    {
        $bytes = @fread($this->control, 65_536);
        if ($bytes === '' || $bytes === false) {
            if ($bytes === '' && !feof($this->control)) {
                return;
            }
            $this->gone = true;
            if ($this->watcher !== null) {
                $this->loop->cancel($this->watcher);
                $this->watcher = null;
            }
            foreach ($this->onGone as $callback) {
                $callback();
            }

            return;
        }
        $this->buffer .= $bytes;
        while (($end = strpos($this->buffer, "\n")) !== false) {
            $line = substr($this->buffer, 0, $end);
            $this->buffer = substr($this->buffer, $end + 1);
            if ($this->skipping) {
                $this->skipping = false;

                continue;
            }
            foreach ($this->onLine as $callback) {
                $callback($line);
            }
        }
        if (\strlen($this->buffer) > self::MAX_LINE) {
            $this->buffer = '';
            $this->skipping = true; // the rest of that line is dropped
        }
    }
}
