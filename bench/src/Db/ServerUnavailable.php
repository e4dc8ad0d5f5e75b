<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * A server cannot be run in this configuration here (e.g. `nexus serve --workers=N` before the
 * worker pool exists): the combination is reported as not measured instead of failing the run.
 */
final class ServerUnavailable extends \RuntimeException {}
