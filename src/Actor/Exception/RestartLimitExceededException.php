<?php

declare(strict_types=1);

namespace Nexus\Actor\Exception;

/**
 * A child failed more often than its supervisor's restart limit allows; the child was stopped and this failure escalated.
 */
final class RestartLimitExceededException extends ActorException {}
