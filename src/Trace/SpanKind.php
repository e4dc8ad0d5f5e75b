<?php

declare(strict_types=1);

namespace Nexus\Trace;

/**
 * What a span stands for, as OpenTelemetry names it.
 */
enum SpanKind
{
    /** Serving a request from outside (an HTTP request). */
    case Server;
    /** A call to something outside (a database query). */
    case Client;
    /** Handling a message that arrived (an actor's turn). */
    case Consumer;
    case Producer;
    case Internal;
}
