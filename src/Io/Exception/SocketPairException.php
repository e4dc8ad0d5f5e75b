<?php

declare(strict_types=1);

namespace Nexus\Io\Exception;

/**
 * The operating system refused to create a Unix socket pair.
 */
final class SocketPairException extends IoException {}
