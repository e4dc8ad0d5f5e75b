<?php

declare(strict_types=1);

namespace Nexus\Io\Exception;

/**
 * Connection::read() was called while an earlier read() had not completed yet.
 */
final class ReadPendingException extends IoException {}
