<?php

declare(strict_types=1);

namespace Nexus\Io\Exception;

/**
 * An operation needed an open connection (or an open write side) and it was already closed.
 */
final class ConnectionClosedException extends IoException {}
