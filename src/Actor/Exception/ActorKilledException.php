<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * Thrown inside an actor that received Kill, so that its supervisor decides (Stop by default).
 */
final class ActorKilledException extends ActorException {}
