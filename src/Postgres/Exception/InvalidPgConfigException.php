<?php

declare(strict_types=1);

namespace Nexus\Postgres\Exception;

final class InvalidPgConfigException extends \InvalidArgumentException implements PgException {}
