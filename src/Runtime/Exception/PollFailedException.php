<?php

declare(strict_types=1);

namespace Nexus\Runtime\Exception;

/**
 * The loop's readiness poll failed for a stream it cannot watch (a descriptor at or above 1024 for
 * stream_select(), or a stream closed while watched). The loop stopped watching that stream and
 * serves the others; this reports it to the loop's error handler.
 */
final class PollFailedException extends \RuntimeException {}
