<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The body said Content-Encoding gzip or deflate but did not decode (corrupt or truncated data), or
 * named an encoding the client does not know. The connection was closed. Send the request with
 * decompress: false to get the raw bytes.
 */
final class ContentDecodingException extends \RuntimeException implements NetworkFailure {}
