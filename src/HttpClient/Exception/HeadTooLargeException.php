<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The response head is larger than ClientOptions::$maxHeadSize or has more header fields than
 * ClientOptions::$maxHeaderCount. The connection was closed. Raise the limit if the server is
 * known to send such heads.
 */
final class HeadTooLargeException extends \RuntimeException implements NetworkFailure {}
