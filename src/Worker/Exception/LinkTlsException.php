<?php

declare(strict_types=1);

namespace Nexus\Worker\Exception;

/**
 * The TLS settings of the links between nodes are unusable: a certificate, key or CA file is
 * missing or unreadable, or only some of them were given. The message says which and what to do.
 */
final class LinkTlsException extends \InvalidArgumentException {}
