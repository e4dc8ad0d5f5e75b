<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * The actor's setup or constructor failed while it started or restarted (Stop by default).
 */
final class ActorInitializationException extends ActorException {}
