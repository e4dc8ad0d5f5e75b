<?php

declare(strict_types=1);

namespace Nexus\Io\Exception;

/**
 * An outgoing connection was not established within the timeout given to Connector::connect().
 */
final class ConnectTimeoutException extends ConnectException {}
