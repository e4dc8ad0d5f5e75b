<?php

declare(strict_types=1);

namespace Nexus\Telemetry;

/**
 * An OTEL_* variable holds a value Nexus cannot use; the message names the variable and the
 * values it accepts. Thrown at start-up, before anything is served.
 */
final class TelemetryConfigurationException extends \InvalidArgumentException {}
