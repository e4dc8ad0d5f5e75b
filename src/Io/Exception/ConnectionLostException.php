<?php

declare(strict_types=1);

namespace Nexus\Io\Exception;

/**
 * The connection broke while reading or writing (reset by peer, broken pipe). It is given to the
 * onClose callbacks as the reason the connection closed.
 */
final class ConnectionLostException extends IoException {}
