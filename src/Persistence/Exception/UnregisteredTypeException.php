<?php

declare(strict_types=1);

namespace Nexus\Persistence\Exception;

/**
 * A class or logical name used with the TypeRegistry was not registered, or was registered twice
 * in conflicting ways. Register it once, with one name, before the actors that use it start.
 */
final class UnregisteredTypeException extends PersistenceException {}
