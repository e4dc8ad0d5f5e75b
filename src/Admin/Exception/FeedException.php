<?php

declare(strict_types=1);

namespace Nexus\Admin\Exception;

/**
 * The admin feed could not be read: nothing listens at the address, the connection broke, the
 * answer was not the feed, or it stayed silent past the timeout. The message names the address;
 * check that the server runs with its admin listener there (--admin=HOST:PORT).
 */
final class FeedException extends \RuntimeException {}
