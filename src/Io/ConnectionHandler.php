<?php

declare(strict_types=1);

namespace Nexus\Io;

/**
 * The owner of a Connection as one object (Connection::attach()), instead of onData(), onEnd(),
 * onDrain() and onClose() closures: a connection whose owner keeps an object per connection anyway
 * then holds no closure and no callback list for it (about a kilobyte less per idle connection).
 * Each method is called where the matching callbacks are, just before them, under the same
 * rules.
 */
interface ConnectionHandler
{
    /**
     * Bytes received (as onData()).
     */
    public function dataReceived(string $data): void;

    /**
     * The peer has closed its write side (as onEnd()).
     */
    public function endReceived(): void;

    /**
     * The write buffer has emptied after write() returned false (as onDrain()).
     */
    public function drained(): void;

    /**
     * The connection is closed, with the reason when it broke (as onClose()); called once.
     */
    public function closed(?\Throwable $reason): void;
}
