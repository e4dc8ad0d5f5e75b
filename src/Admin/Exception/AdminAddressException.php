<?php

declare(strict_types=1);

namespace Nexus\Admin\Exception;

/**
 * An admin address that cannot be used: not HOST:PORT (or `off`), a host that is not an IP
 * address, a port out of range. The message says the accepted form.
 */
final class AdminAddressException extends \InvalidArgumentException {}
