<?php

declare(strict_types=1);

namespace Nexus\Runtime\Exception;

/**
 * The work was cancelled (see Nexus\Runtime\Cancellation); the previous exception says why, when
 * a reason was given (a TimeoutException for a TimeoutCancellation).
 */
final class CancelledException extends \RuntimeException {}
