<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * An ask was sent to an actor that had already stopped: it can never reply.
 */
final class RecipientTerminatedException extends ActorException {}
