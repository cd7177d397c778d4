"""The vocabulary every benchmark speaks: samples, tasks, states and scores."""

from .prompt import PromptTemplate
from .sample import Sample
from .score import Score
from .scorer import scorer
from .state import State
from .task import Task

__all__ = ["PromptTemplate", "Sample", "Score", "State", "Task", "scorer"]
