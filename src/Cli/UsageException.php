<?php

declare(strict_types=1);

namespace Nexus\Cli;

/**
 * The command line cannot be run as given. The Application prints the message with a pointer to
 * the help and exits with Command::USAGE.
 */
final class UsageException extends \RuntimeException {}
