<?php

declare(strict_types=1);

namespace Nexus\Actor\Supervision;

/**
 * What a supervisor does with a child that failed.
 */
enum Directive
{
    /** Keep the actor and its state; drop the message that failed. */
    case Resume;
    /** Stop its children, then replace it with a fresh incarnation from its Props. */
    case Restart;
    /** Stop it for good. */
    case Stop;
    /** Fail the supervisor itself with the same exception, for its own supervisor to decide. */
    case Escalate;
}
