<?php

declare(strict_types=1);

namespace Nexus\Http\Server;

/**
 * ResponseStream::write() after the client went away or the server closed the connection: stop
 * producing, nobody is reading.
 */
final class StreamClosedException extends \RuntimeException {}
