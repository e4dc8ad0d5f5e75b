<?php

declare(strict_types=1);

namespace Nexus\Io\Exception;

/**
 * A listening socket could not be created or bound.
 */
final class ListenException extends IoException {}
