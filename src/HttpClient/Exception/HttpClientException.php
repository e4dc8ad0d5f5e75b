<?php

declare(strict_types=1);

namespace Nexus\HttpClient\Exception;

/**
 * Every failure of the HTTP client implements this: catch it to handle them all. Each concrete
 * class names one kind of failure and its message says what to do next.
 */
interface HttpClientException extends \Throwable {}
