<?php

declare(strict_types=1);

namespace Nexus\Pool\Exception;

/**
 * A PoolOptions value is out of range; the message names it and what is allowed.
 */
final class InvalidPoolOptionsException extends \InvalidArgumentException implements PoolException {}
