"""Agents: one small protocol (`Agent`: ``bid(obs)``, ``play(obs)``), one module per agent,
and a registry by name (`make_agent`). See `ddzlab.agents.base`."""
from .base import (Agent, AgentError, AgentSpec, agent_name, available_agents,
                   available_trainers, make_agent, parse_spec, play_game, register_agent,
                   register_trainer)
from .random_agent import RandomAgent
from .smallest import SmallestAgent, smallest_key
from .greedy import GreedyAgent

__all__ = ["Agent", "AgentError", "AgentSpec", "agent_name", "available_agents", "make_agent",
           "parse_spec", "play_game", "register_agent", "register_trainer", "available_trainers", "RandomAgent", "SmallestAgent", "GreedyAgent",
           "smallest_key"]
