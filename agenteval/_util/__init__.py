"""Small helpers shared by every layer (no agenteval imports): hostile-text sanitisers."""
