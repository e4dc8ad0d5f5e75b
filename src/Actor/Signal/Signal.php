<?php

declare(strict_types=1);

namespace Nexus\Actor\Signal;

/**
 * A lifecycle notification delivered to a behavior's signal handler (or a class actor's hooks),
 * never to its message handler.
 */
interface Signal {}
