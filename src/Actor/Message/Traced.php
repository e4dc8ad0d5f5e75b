<?php

declare(strict_types=1);

namespace Nexus\Actor\Message;

use Nexus\Trace\TraceContext;

/**
 * The envelope of a message sent from traced work (an HTTP request, or an actor handling a
 * traced message): the message and the trace context it was sent under. tell() and ask() wrap
 * a message in it only while the sender's task carries a trace context (Scheduler::$trace), so
 * with tracing off no message is ever wrapped. The receiving actor unwraps it before its handler
 * runs (the handler, ActorContext::message() and dead letters see the message itself) and handles
 * the message in a span of its own, child of $context, under which its own sends are traced.
 * It crosses between workers like any registered message class.
 *
 * @internal made by the runtime's refs
 */
final readonly class Traced implements AutoReceived
{
    public function __construct(
        public mixed $message,
        public TraceContext $context,
    ) {}
}
