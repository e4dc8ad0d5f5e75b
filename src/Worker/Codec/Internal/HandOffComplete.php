<?php

declare(strict_types=1);

namespace Nexus\Worker\Codec\Internal;

/**
 * From a worker handing its actors off during a reload to the one that replaces it, after the
 * messages those actors still held: the new copies may start.
 *
 * @internal
 */
final class HandOffComplete {}
