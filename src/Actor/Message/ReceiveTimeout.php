<?php

declare(strict_types=1);

namespace Nexus\Actor\Message;

/**
 * The default message of ActorContext::setReceiveTimeout(): no message arrived for the set time.
 */
final class ReceiveTimeout {}
