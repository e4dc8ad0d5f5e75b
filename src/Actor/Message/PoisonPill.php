<?php

declare(strict_types=1);

namespace Nexus\Actor\Message;

/**
 * Stops the actor once it reaches this message: the messages queued before it are processed first,
 * those after it go to dead letters.
 */
final class PoisonPill implements AutoReceived {}
