<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * The request cannot be sent as given: a URL that is not absolute http(s), a header name that is
 * not a token, a header value with a line break, a method that is not a token. Nothing was sent.
 */
final class InvalidRequestException extends \InvalidArgumentException implements HttpClientException {}
