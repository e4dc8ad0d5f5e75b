<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

/**
 * Bytes from another worker that are not a valid frame; the link that sent them is closed.
 */
final class FrameException extends \RuntimeException implements WorkerException {}
