<?php

declare(strict_types=1);

namespace Nexus\Io\Exception;

/**
 * Base of every socket failure raised by Nexus\Io: catch this to handle them all.
 */
abstract class IoException extends \RuntimeException {}
