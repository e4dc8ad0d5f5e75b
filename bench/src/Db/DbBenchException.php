<?php

declare(strict_types=1);

namespace Nexus\Bench\Db;

/**
 * The database benchmark cannot go on: a tool is missing, a server did not start, a run failed.
 * The message says what to do about it.
 */
final class DbBenchException extends \RuntimeException {}
