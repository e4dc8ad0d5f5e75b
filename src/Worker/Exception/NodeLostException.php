<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

use Nexus\Runtime\Exception\TransientException;

/**
 * An ask whose message was on its way to a node that left the cluster (its lease expired: it was
 * killed or cut off; or it left) before that node confirmed it: it may or may not have been
 * handled there, never twice. The actor it was for comes up on another node with its state;
 * retry there if handling it twice is harmless, or ask it what it knows first.
 */
final class NodeLostException extends \RuntimeException implements WorkerException, TransientException {}
