<?php

declare(strict_types=1);

namespace Nexus\Actor\Message;

/**
 * Makes the actor fail with ActorKilledException when it reaches this message, so that its
 * supervisor decides what happens (the default strategy stops it).
 */
final class Kill implements AutoReceived {}
