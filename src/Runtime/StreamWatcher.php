<?php

declare(strict_types=1);

namespace Nexus\Runtime;

/**
 * What the loop calls when a watched stream is ready (Loop::watchReadable(), watchWritable()): an
 * object that owns the stream anyway (a connection) registers itself, so that a watcher costs no
 * closure and a readiness event one method call. Loop::onReadable() and onWritable() take a
 * closure instead.
 */
interface StreamWatcher
{
    /**
     * The stream of watcher $id (as watchReadable() or watchWritable() returned it) is readable,
     * or writable for a write watcher.
     */
    public function streamReady(int $id): void;
}
