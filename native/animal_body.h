/* AnimalBody: how one animal moves on the terrain (entities/animals/animal.gd keeps one). */
#ifndef AVALON_ANIMAL_BODY_H
#define AVALON_ANIMAL_BODY_H

void animal_body_register(void *handle);

#endif
