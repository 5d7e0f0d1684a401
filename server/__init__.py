"""Casino dominicano online: the game server, its rules engine and computer players."""
