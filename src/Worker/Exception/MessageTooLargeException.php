<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

/**
 * A message bound for another worker is larger than a link carries (Mesh::MAX_MESSAGE_BYTES) or
 * nested deeper than MessageClasses::MAX_DEPTH; nothing was sent. Send a reference to the data
 * (a key, a path) instead, or split it.
 */
final class MessageTooLargeException extends \InvalidArgumentException implements WorkerException {}
