<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The request body could not be sent as declared: its source failed, or produced a different
 * number of bytes than the Content-Length given. The connection was closed.
 */
final class RequestBodyException extends \RuntimeException implements HttpClientException {}
