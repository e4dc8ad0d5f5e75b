<?php

declare(strict_types=1);

namespace Nexus\Io\Exception;

/**
 * An outgoing connection could not be established (refused, unreachable, bad address).
 */
class ConnectException extends IoException {}
