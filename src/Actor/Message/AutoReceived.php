<?php

declare(strict_types=1);

namespace Nexus\Actor\Message;

/**
 * Messages the runtime handles itself when they reach the head of the mailbox.
 *
 * @internal
 */
interface AutoReceived {}
